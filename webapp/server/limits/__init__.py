"""What one client may cost: rates, packets, paid work, costly pages, presence."""
