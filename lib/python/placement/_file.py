"""Cluster descriptions as placement(1) reads and writes them: the text
format of placement(5) and the tool's JSON (`placement --json format`,
`placement --json import kafka`), loaded into the package's own types and
written back.

A what-if script starts from a file the tool wrote:

    cluster = placement.load("cluster.txt")     # or the tool's JSON
    cluster.members[0].draining = True
    plan = cluster.plan()                       # the file's policy and settings
    placement.dump(cluster, "after.txt")

The types are _cluster.py's, the text's reader and writer _text.py's, the
JSON's _jsonfile.py's, apply() _apply.py's; this module picks between them.
"""

import os

# apply and Event are not used here: placement/__init__.py takes them from here.
from ._apply import apply
from ._cluster import Cluster, Event, FormatError
from ._jsonfile import _dump_json, _parse_json
from ._snapshot import Snapshot
from ._text import _dump_text, _parse_text


# ---- load and dump ---------------------------------------------------------------------

def loads(data, path="<string>"):
    """A Cluster from the text of a placement(5) file or of the tool's JSON
    (str or bytes; JSON when its first non-blank character is '{')."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data.lstrip(b" \t\r\n\xef\xbb\xbf").startswith(b"{"):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(path, None, "JSON that is not UTF-8: %s" % e) from None
        return _parse_json(text, path)
    return _parse_text(data, path)


def load(file):
    """Load a cluster description placement(1) reads or writes: a
    placement(5) file (`placement import kafka` output, `plan --out`, a
    file written by hand) or the tool's JSON of one (`placement --json
    format FILE`, `placement --json import kafka ...`).

    Args:
        file: a path (str or os.PathLike), or a binary or text file object.

    Returns:
        a Cluster: members, streams, shards, overrides and copies in the
        package's types, the settings, last-move clocks and events.

    Raises:
        FormatError: the first line placement(1) would refuse, with its
            number and the tool's words; a snapshot the library refuses (a
            duplicate id, a leader not among the replicas, ...) names the
            line of the element, and carries the PlacementError as .error.
        OSError: the file cannot be read.
    """
    if hasattr(file, "read"):
        return loads(file.read(), getattr(file, "name", "<file>"))
    with open(file, "rb") as f:
        return loads(f.read(), os.fspath(file))


def dumps(cluster, json=False):
    """The text of a placement(5) file for a Cluster (or a Snapshot), in its
    own order: settings, members, streams, shards, overrides, copies,
    events; ids escaped as placement(1) writes them (plain ASCII). json=True:
    the tool's JSON (`placement --json format`), members, streams, shards,
    overrides and copies sorted by id bytes as the tool sorts them."""
    if isinstance(cluster, Snapshot):
        cluster = Cluster(cluster.members, cluster.shards, cluster.streams, cluster.overrides, cluster.copies)
    if json:
        return _dump_json(cluster)
    return _dump_text(cluster)


def dump(cluster, file=None, json=False):
    """Write a Cluster (or a Snapshot) as placement(5) text (or, json=True,
    the tool's JSON) to a path or a text file object; file=None returns the
    text (as dumps()). load(dump(...)) gives back an equal Cluster."""
    text = dumps(cluster, json=json)
    if file is None:
        return text
    if hasattr(file, "write"):
        file.write(text)
    else:
        with open(file, "w", encoding="ascii" if not json else "utf-8", newline="\n") as f:
            f.write(text)
    return None
