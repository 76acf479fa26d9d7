"""Part families: one folder a family."""
