"""Preparing a docking (the ``setup`` stage, :func:`sparkledock.setup`): cleaning, normal
modes, the receptor surface and swarm centres, initial poses, restraints, membranes and
paratopes, written as a LightDock-compatible setup folder (:mod:`.prepare`)."""
