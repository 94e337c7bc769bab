"""Preparing a docking: swarm centres, initial poses, restraints (``sparkledock setup``)."""
