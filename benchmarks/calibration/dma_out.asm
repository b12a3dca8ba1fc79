; Calibration: UB -> GM copies of BLOCKS 32-byte blocks each, K of them back to back on MTE3 from
; the same UB address with no synchronisation (msKPP's single-core UB -> GM tables).
.equ K, 16
.equ BLOCKS, 32
.rept K
    DMA.UB2GM gm[0x0], [0x0], len=BLOCKS
.endr
    HALT
