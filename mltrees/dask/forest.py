"""Random forests on a Dask cluster (placeholder, filled below)."""
