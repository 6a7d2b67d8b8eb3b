"""The stores in one SQLite file, for one server process."""
