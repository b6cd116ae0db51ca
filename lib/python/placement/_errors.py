"""placement.PlacementError: a C error code with the element it names."""

from . import _ffi


SHOWN = 48  # an id past this many characters is cut in the message


def _show(ident):
    """repr() of an id for a message: its first SHOWN characters and its length
    when longer (the whole id stays in the attribute)."""
    if isinstance(ident, (str, bytes)) and len(ident) > SHOWN:
        n = len(ident.encode("utf-8", "surrogateescape")) if isinstance(ident, str) else len(ident)
        return "%r... (%d bytes)" % (ident[:SHOWN], n)
    return repr(ident)


class PlacementError(Exception):
    """An error the C library returned (or, for a value no C field can hold,
    the binding found before calling it).

    Attributes:
        name:    the code's name as pl_error_name() gives it, e.g. "E_DUP_MEMBER".
        code:    the negative PL_E* value.
        message: pl_strerror() of the code.
        kind:    the element kind of the pl_diag ("member", "stream", "shard",
                 "override", "copy", "snapshot", "config", "argument",
                 "none"), or
                 None when the call takes no pl_diag.
        index:   the element's index in its array (or the config field's
                 place, or the argument's position), or None.
        id:      the element's id where it has one: a member or stream id, a
                 shard key (an override's or a copy's shard key), the config field's
                 name, the snapshot array's name; else None.
        other:   for a duplicate, the id of the earlier element it clashes
                 with (or its index when it has no id); else None.
    """

    def __init__(self, code, kind=None, index=None, id=None, other=None, detail=None):
        self.code = code
        self.name = _ffi.lib.pl_error_name(code).decode("ascii")
        self.message = _ffi.lib.pl_strerror(code).decode("ascii")
        self.kind = kind
        self.index = index
        self.id = id
        self.other = other
        self.detail = detail
        text = "%s: %s" % (self.name, self.message)
        where = []
        if kind is not None and kind != "none":
            where.append(kind)
            if id is not None:
                where.append(_show(id))
            elif index is not None:
                where.append("#%d" % index)
        if where:
            text += " (%s)" % " ".join(where)
        if other is not None:
            text += ", clashes with %s" % (_show(other),)
        if detail:
            text += ": " + detail
        super().__init__(text)

    def __reduce__(self):
        e = (type(self), (self.code, self.kind, self.index, self.id, self.other, self.detail))
        return e + ({"line": self.line},) if hasattr(self, "line") else e


def check(rc, diag=None, namer=None):
    """Raise PlacementError for a negative rc; return rc otherwise. namer(kind,
    index) gives the id of the element a diag names."""
    if rc >= 0:
        return rc
    if diag is None:
        raise PlacementError(rc)
    kind = _ffi.ELEM_KINDS.get(diag.kind, "unknown")
    index = diag.index if diag.index != _ffi.PL_NONE else None
    ident = other = None
    if namer is not None and index is not None:
        ident = namer(kind, index)
    if diag.other != _ffi.PL_NONE and kind in ("member", "stream", "shard", "override", "copy"):
        other = namer(kind, diag.other) if namer is not None else None
        if other is None:
            other = diag.other
    raise PlacementError(rc, kind, index, ident, other)
