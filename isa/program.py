"""A program as the emulator sees it, and the ``.vbin`` container that stores it.

Layout (little endian; see docs/encoding.md):

    offset  size  field
    0       8     magic b"VCOREBIN"
    8       2     format version (1)
    10      2     flags (0)
    12      4     number of 64-bit instruction words
    16      4     number of data records
    20      4     bytes of the data section
    24      4     CRC-32 of every byte after the 32-byte header
    28      4     reserved (0)
    32      8*n   instruction words
    ...           data records: space u8 (0 ub, 1 gm), kind u8 (0 list, 1 fill), type code u8, 0 u8,
                  address u32, count u32, then the payload (list: count elements, fill: one element),
                  zero padded to a multiple of 8 bytes
"""

from __future__ import annotations

import struct
import zlib

from attrs import field, frozen

from vcore.isa.types import TYPE_BY_CODE, TYPES

MAGIC = b"VCOREBIN"
VERSION = 1
HEADER = struct.Struct("<8sHHIIIII")
RECORD = struct.Struct("<BBBBII")
SPACES = ("ub", "gm")
KINDS = ("list", "fill")


class VbinError(Exception):
    """A file that is not a well-formed ``.vbin``."""


@frozen
class DataRecord:
    """A data directive: ``count`` elements of ``type`` at ``addr`` of ``space``.

    ``payload`` holds the elements' bytes (kind ``list``) or one element repeated (kind ``fill``).
    """

    space: str
    kind: str
    type: str
    addr: int
    count: int
    payload: bytes

    @property
    def nbytes(self) -> int:
        return self.count * TYPES[self.type].size

    def data(self) -> bytes:
        return self.payload if self.kind == "list" else self.payload * self.count


@frozen
class SourceLine:
    """Where an instruction came from, for reports and faults."""

    line: int
    text: str
    col: int = 1  # the column where the statement (its mnemonic) starts


@frozen
class Program:
    """Instruction words, data directives, and (when assembled from text) a pc to source map."""

    words: tuple[int, ...]
    data: tuple[DataRecord, ...] = ()
    source: dict | None = None  # pc -> SourceLine; None for a program read from .vbin
    filename: str = "<program>"
    labels: dict | None = None  # name -> pc
    data_source: tuple | None = None  # per data record: (line, col, text) of its directive, from text
    # The assembler's warnings (located diagnostics with ``format()``); not part of the program's identity.
    warnings: tuple = field(default=(), eq=False)


def _pad8(n: int) -> int:
    return -n % 8


def to_bytes(program: Program) -> bytes:
    records = bytearray()
    for rec in program.data:
        records += RECORD.pack(SPACES.index(rec.space), KINDS.index(rec.kind), TYPES[rec.type].code, 0,
                               rec.addr, rec.count)
        records += rec.payload + b"\0" * _pad8(len(rec.payload))
    body = struct.pack(f"<{len(program.words)}Q", *program.words) + bytes(records)
    header = HEADER.pack(MAGIC, VERSION, 0, len(program.words), len(program.data), len(records),
                         zlib.crc32(body), 0)
    return header + body


def from_bytes(blob: bytes, filename: str = "<vbin>") -> Program:
    if len(blob) < HEADER.size:
        if blob[: len(MAGIC)] != MAGIC[: len(blob)] or not blob:
            raise VbinError("not a vcore binary (bad magic)")
        raise VbinError(f"truncated: {len(blob)} bytes, the header alone is {HEADER.size}")
    magic, version, flags, nwords, nrecords, data_size, crc, reserved = HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise VbinError("not a vcore binary (bad magic)")
    if version != VERSION:
        raise VbinError(f"format version {version} is not supported (this vcore reads version {VERSION})")
    if flags or reserved:
        raise VbinError("reserved header fields are set")
    expected = HEADER.size + 8 * nwords + data_size
    if len(blob) < expected:
        raise VbinError(f"truncated: {len(blob)} bytes, the header announces {expected}")
    if len(blob) > expected:
        raise VbinError(f"{len(blob) - expected} bytes of trailing garbage")
    if zlib.crc32(blob[HEADER.size:]) != crc:
        raise VbinError("checksum mismatch: the file is corrupt")
    words = struct.unpack_from(f"<{nwords}Q", blob, HEADER.size)
    pos = HEADER.size + 8 * nwords
    records = []
    for _ in range(nrecords):
        if pos + RECORD.size > len(blob):
            raise VbinError("data record runs past the end of the file")
        space, kind, code, zero, addr, count = RECORD.unpack_from(blob, pos)
        pos += RECORD.size
        etype = TYPE_BY_CODE.get(code)
        if space >= len(SPACES) or kind >= len(KINDS) or etype is None or etype.kind == "mask" or zero:
            raise VbinError(f"malformed data record at byte {pos - RECORD.size}")
        size = etype.size * (count if kind == 0 else 1)
        if count == 0 or pos + size + _pad8(size) > len(blob):
            raise VbinError(f"malformed data record at byte {pos - RECORD.size}")
        if addr + count * etype.size > 1 << 32:
            raise VbinError(f"data record at byte {pos - RECORD.size} runs past the 4 GiB address space")
        payload = blob[pos:pos + size]
        if any(blob[pos + size:pos + size + _pad8(size)]):
            raise VbinError(f"non-zero padding after data record at byte {pos - RECORD.size}")
        pos += size + _pad8(size)
        records.append(DataRecord(SPACES[space], KINDS[kind], etype.name, addr, count, bytes(payload)))
    if pos != len(blob):
        raise VbinError("data section size does not match its records")
    return Program(words=tuple(words), data=tuple(records), filename=filename)
