"""The lesson store on disk: finding it, its files, the lesson record, config and topics."""
