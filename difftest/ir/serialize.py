FORMAT_VERSION=1
def to_json(p): raise NotImplementedError
def from_json(p): raise NotImplementedError
