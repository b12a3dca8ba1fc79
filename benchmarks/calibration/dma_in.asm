; Calibration: GM -> UB copies of BLOCKS 32-byte blocks each, K of them on MTE2 into the same UB
; address, each waited for (BARRIER MTE2) before the next starts: msKPP's single-core DMA table
; gives a copy's time from its start to its data in UB, and its measuring kernels wait for each copy.
.equ K, 16
.equ BLOCKS, 32
.rept K
    DMA.GM2UB [0x0], gm[0x0], len=BLOCKS
    BARRIER MTE2
.endr
    HALT
