"""What a user calls: the command line, the pytest plugin and the reports."""
