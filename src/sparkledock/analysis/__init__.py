"""After the simulation: models, clustering, ranking."""
