; Calibration: UB -> GM copies of BLOCKS 32-byte blocks each, K of them on MTE3 from the same UB
; address, each waited for (BARRIER MTE3) before the next starts (msKPP's single-core UB -> GM
; tables, read as dma_in.asm reads the GM -> UB ones).
.equ K, 16
.equ BLOCKS, 32
.rept K
    DMA.UB2GM gm[0x0], [0x0], len=BLOCKS
    BARRIER MTE3
.endr
    HALT
