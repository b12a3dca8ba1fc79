"""Prices and footprints of the transposes (CONTRACT 13.5, 13.9).

13.9: VTRANS 2 cycles a tile (512 B at 256 B/cycle; a2 b16 128 el/cycle); VTRANS5HD 2 cycles an
iteration of 16-bit type (256 elements at 128), 1 of 8-bit (256 bytes at 256), the 950 as the a2
(assumed); around them the profile's tensor.issue and tensor.startup, as for section 6's
instructions. From the profile files: tensor.issue 35 (950) and 22 (a2), tensor.startup 1 (both).

Races (3.7, 12): each reads exactly its tiles, or its listed blocks and its two 128-byte lists, and
writes exactly its tiles or listed blocks.
"""

from __future__ import annotations

import numpy as np
import pytest

import vcore
from vcore.assembler import assemble
from vcore.emulator.jobs import Job

ISSUE = {"950": 35, "a2": 22}
STARTUP = 1


def _by_rates(name: str):
    """The built-in profile ``name`` with its tensor instructions priced by the tensor rates (the 950's
    ``tensor.as_function`` off; the a2's is off already)."""
    import copy

    from vcore.emulator import load_profile
    from vcore.emulator.profiles.profile import Profile

    base = load_profile(name)
    table = copy.deepcopy(base.table)
    table["tensor"]["as_function"] = False
    return Profile(name, table, base.source_text)


@pytest.mark.parametrize("profile", ["950", "a2"])
@pytest.mark.parametrize(("text", "iterations", "cycles"), [
    ("VTRANS.f16 [0x4000], [0x0]", 1, 2),
    ("VTRANS.u16 [0x4000], [0x0], repeat=5", 5, 2 * 5),
    ("VTRANS.s16 [0x4000], [0x0], repeat=7, dstrep=0, srcrep=3", 7, 2 * 7),
    ("VTRANS5HD.f16 [0x80], [0x0]", 1, 2),
    ("VTRANS5HD.u16 [0x80], [0x0], repeat=3", 3, 2 * 3),
    ("VTRANS5HD.u8 [0x80], [0x0], repeat=3", 3, 1 * 3),
    ("VTRANS5HD.s8 [0x80], [0x0], dsthigh=1", 1, 1),
    ("VTRANS5HD.s8 [0x80], [0x0], repeat=255", 255, 255),
])
def test_prices_per_tile_and_iteration(profile, text, iterations, cycles):
    m = vcore.load_text(text + "\nHALT\n", profile=profile)
    cost = m.costs.tensor_cost(m.instruction_at(0), Job(0, None, iterations=iterations))
    assert (cost.occupancy, cost.latency) == (ISSUE[profile] + cycles, ISSUE[profile] + cycles + STARTUP)


def test_the_profiles_name_the_keys_and_their_sources():
    for name in ("950", "a2"):
        text = vcore.load_profile(name).source_text
        transpose = next(line for line in text.splitlines() if line.startswith("transpose ="))
        trans5hd = next(line for line in text.splitlines() if line.startswith("trans5hd ="))
        assert transpose.split("#")[0].split("=")[1].strip() == "2"
        assert trans5hd.split("#")[0].split("=")[1].strip() == "[1, 2]"
        assert "documented" in transpose
    assert "assumed" in vcore.load_profile("950").source_text.split("trans5hd =")[1].split("\n[")[0]


def races(text: str, ub: dict | None = None) -> list[str]:
    m = vcore.Machine(assemble(text), "950")
    for addr, data in (ub or {}).items():
        m.write("ub", addr, np.asarray(data).view(np.uint8).reshape(-1))
    result = m.run()
    assert result.fault is None, result.fault
    return [race.kind for race in result.races]


# VTRANS: source tiles at 0x1000 and 0x1400 (srcrep=2), destination tiles at 0x4000 and 0x4400
VTRANS = "VTRANS.f16 [0x4000], [0x1000], repeat=2, dstrep=2, srcrep=2\n"


@pytest.mark.parametrize(("other", "kinds"), [
    ("DMA.UB2GM gm[0x0], [0x4200], len=16", []),  # the 512 bytes between the written tiles
    ("DMA.UB2GM gm[0x0], [0x4400], len=16", ["RAW"]),  # the second written tile
    ("DMA.UB2GM gm[0x0], [0x45E0], len=1", ["RAW"]),  # its last 32 bytes
    ("DMA.GM2UB [0x1200], gm[0x0], len=16", []),  # between the tiles read
    ("DMA.GM2UB [0x15E0], gm[0x0], len=1", ["WAR"]),  # the last 32 bytes of the second tile read
    ("DMA.GM2UB [0x1600], gm[0x0], len=16", []),  # just past it
])
def test_vtrans_touches_exactly_its_tiles(other, kinds):
    assert races(VTRANS + other + "\nHALT\n") == kinds


SRC = [0x4000 + 64 * i for i in range(16)]  # every other block from 0x4000
DST = [0x8000 + 64 * j for j in range(16)]
LISTS = {0x100: np.array(SRC, dtype="<u8"), 0x180: np.array(DST, dtype="<u8")}
VTRANS5HD = "VTRANS5HD.f16 [0x180], [0x100]\n"


@pytest.mark.parametrize(("other", "kinds"), [
    ("DMA.GM2UB [0x4020], gm[0x0], len=1", []),  # a block between the listed sources
    ("DMA.GM2UB [0x43C0], gm[0x0], len=1", ["WAR"]),  # the last listed source (srclist[15])
    ("DMA.UB2GM gm[0x0], [0x8020], len=1", []),  # a block between the listed destinations
    ("DMA.UB2GM gm[0x0], [0x8040], len=1", ["RAW"]),  # dstlist[1]
    ("DMA.GM2UB [0x160], gm[0x0], len=1", ["WAR"]),  # the last 32 bytes of the source list
    ("DMA.GM2UB [0x1E0], gm[0x0], len=1", ["WAR"]),  # the last 32 bytes of the destination list
    ("DMA.GM2UB [0x200], gm[0x0], len=1", []),  # just past the lists
    ("DMA.GM2UB [0xE0], gm[0x0], len=1", []),  # just before them
])
def test_vtrans5hd_touches_exactly_its_lists_and_blocks(other, kinds):
    assert races(VTRANS5HD + other + "\nHALT\n", LISTS) == kinds


def test_the_order_sees_the_blocks_the_lists_name_when_it_starts():
    # a2: V instructions overlap unless a barrier orders them, so two with a common block are a (latent)
    # race, and two without are not, whatever the lists held when the scalar unit handed it over (here
    # zeros: the ST that writes them lands a cycle later)
    def text(dst_block: int) -> str:
        stores = "".join(f"MOV S2, {a:#x}\nST.u64 [{0x100 + 8 * i:#x}], S2\n" for i, a in enumerate(SRC))
        stores += "".join(f"MOV S2, {dst_block + 64 * j:#x}\nST.u64 [{0x180 + 8 * j:#x}], S2\n" for j in range(16))
        # (iteration 1 is 512 bytes on: had the zeros named its blocks, it would write 0x200..0x220 too)
        return f"VTRANS.f16 [0x200], [0x1000]\n{stores}VTRANS5HD.f16 [0x180], [0x100], repeat=2, dstrep=16, " \
               f"srcrep=16\nHALT\n"

    m = vcore.Machine(assemble(text(0x8000)), "a2")
    result = m.run()
    assert result.fault is None and not result.races, (result.fault, result.races)
    m = vcore.Machine(assemble(text(0x200)), "a2")
    result = m.run()
    assert [race.kind for race in result.races] == ["WAW"]


def test_on_the_950_it_waits_for_the_v_result_its_blocks_hold():
    # the 950's V scoreboard: VTRANS5HD reads the VADDS result at 0x4000.. (every other block), so it
    # starts after that lands and transposes the sums, not the zeros before them
    # (the lists written by ST after the VADDS is handed over)
    stores = "".join(f"MOV S2, {a:#x}\nST.u64 [{0x100 + 8 * i:#x}], S2\n" for i, a in enumerate(SRC + DST))
    text = (".ubfill 0x4000, f16, 512, 1.0\nVADDS.f16 [0x4000], [0x4000], 2.0, repeat=4\n" + stores + VTRANS5HD
            + "HALT\n")
    result = (m := vcore.Machine(assemble(text), "950")).run()
    assert result.fault is None and not result.races
    assert (m.ub[0x8000:0x8020].view("<f2") == 3.0).all()


def test_on_the_950_it_waits_for_every_v_result_to_ub():
    # [vcore] its blocks are known only when it has read its lists: the 950 scoreboard orders it after
    # every V instruction still writing UB, here a VADDS on blocks it never names
    def stall(profile: str) -> int:
        text = "VADDS.f16 [0x10000], [0x10000], 2.0, repeat=100\n" + VTRANS5HD + "HALT\n"
        m = vcore.Machine(assemble(text), _by_rates(profile))
        for addr, data in LISTS.items():
            m.write("ub", addr, data.view(np.uint8))
        result = m.run()
        assert result.fault is None and not result.races, (result.fault, result.races)
        return next(e for e in result.per_pc if e.text.startswith("VTRANS5HD")).stalls.get("dependency", 0)

    # VADDS (priced by the tensor rates, tensor.as_function off: a function's results land as it ends)
    # holds V for issue 35 + 100 iterations at 2 cycles; its results land tensor.startup (1) later.
    # The transpose takes V when VADDS frees it and, on the 950, waits that 1 cycle more for its results
    # (a footprint of its own blocks would not have waited)
    assert stall("950") == 1
    assert stall("a2") == 0  # the a2 has no scoreboard: V instructions overlap
