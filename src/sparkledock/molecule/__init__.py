"""What a docking is made of: atoms and their annotations (:mod:`.structure`,
:mod:`.residues`), normal modes (:mod:`.anm`), restraints (:mod:`.restraints`), the pose
vector and conformers (:mod:`.pose`), the prepared partners (:mod:`.system`), and geometry
helpers (:mod:`.geometry`, :mod:`.spatial`)."""
