"""The Socket.IO handlers, one module per event family, and how an event reaches one."""
