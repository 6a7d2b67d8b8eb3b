"""The pure core: board, perfect play, the weaker strategies and the HP match. No I/O."""
