"""How many instructions a run has run, per instruction, and where its limit stands."""

from __future__ import annotations

DEFAULT_MAX_INSTRUCTIONS = 50_000_000


class Tally:
    """Owns how many instructions a run has run: per instruction (by 8-byte word), those run inside
    vector functions not yet in the run loop's total, the run's limit, and the count at which the
    run loop looks next (a list of one: a function's launch lowers it by the instructions it runs,
    which the run loop does not count one by one)."""

    def __init__(self, words: int) -> None:
        self.per_word = [0] * words
        self.extra = 0  # run inside functions, not yet in the run loop's ``executed``
        self.fast = 0  # run inside functions' loops in closed form (emulator.functions.fast_loops)
        self.replayed = 0  # run in tiling loops' passes that reused the schedule before (emulator.timing.replay)
        self.limit = DEFAULT_MAX_INSTRUCTIONS
        self.check_at = [0]

    def budget(self) -> int:
        """Instructions a function launched now may run before the limit."""
        return self.limit - sum(self.per_word)

    def add_function(self, counts: dict, fast: int = 0) -> None:
        """Count the instructions a launched function runs (the run loop counts only VF.BEGIN), ``fast``
        of them in loops in closed form."""
        self.fast += fast
        mine = self.per_word
        for pc, n in counts.items():
            mine[pc >> 3] += n
            self.extra += n
            self.check_at[0] -= n

    def take_extra(self) -> int:
        """The instructions run inside functions since the last look, now counted."""
        extra, self.extra = self.extra, 0
        return extra

    def counts(self) -> dict[int, int]:
        """pc -> times run, for those that ran."""
        return {i * 8: n for i, n in enumerate(self.per_word) if n}

    def clear(self) -> None:
        """Nothing has run (a program-order run that diverged starts again timed)."""
        self.per_word = [0] * len(self.per_word)
        self.extra = self.fast = self.replayed = 0
