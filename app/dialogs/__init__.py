"""Modal dialogs: help, approve a command, type-to-confirm a fix, the one-hour reset, the session picker."""
