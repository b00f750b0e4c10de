"""Learned dispatch: the feature schema, training, and model export (JSON and C)."""
