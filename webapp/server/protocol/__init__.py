"""The protocol's vocabulary: event names, codes, each event's fields, payloads, the snapshot."""
