"""The run engine: the GSO step (:mod:`.gso`, written once for NumPy and torch;
:mod:`.gso_torch` its device selection), the simulation of swarms with checkpoints, progress
and early stopping (:mod:`.simulation`), the driver that places swarm groups on threads,
devices and MPI ranks (:mod:`.driver`, :mod:`.parallel`), and the cost and memory models
that size them (:mod:`.costs`, :mod:`.memory`)."""
