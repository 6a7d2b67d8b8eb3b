"""The web side: the Flask app, the Socket.IO protocol, storage and the process manager."""
