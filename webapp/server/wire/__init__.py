"""Below the events: websocket and polling guards, packet counts, codec, Origin, overrides."""
