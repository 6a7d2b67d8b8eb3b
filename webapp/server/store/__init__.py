"""What is kept: matches, rooms, history, forgotten players, data dir, backups, keys."""
