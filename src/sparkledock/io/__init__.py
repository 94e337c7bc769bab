"""Readers and writers for LightDock's file formats."""
