"""numba-simt's runtime: launches on the machine, the deopt save area and never-ran
tracking, the host's resumption of deopted workitems, the growable buffer pool, and host
programs."""
