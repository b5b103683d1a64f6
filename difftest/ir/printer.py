def to_source(p): raise NotImplementedError
