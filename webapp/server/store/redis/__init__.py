"""The stores in Redis, shared by processes and hosts."""
