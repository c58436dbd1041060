"""``truegreen demo``: the whole loop on a bundled example project, offline."""
