"""The HTTP pages: the game and rooms, health, your data, practice, static files."""
