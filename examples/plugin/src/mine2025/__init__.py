"""mine2025: a worked example of a fedverify plugin (see README.md)."""
