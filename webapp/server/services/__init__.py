"""What the server does for players: matches, rooms, odds and targets, the lab, history."""
