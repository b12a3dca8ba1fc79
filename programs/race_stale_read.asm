; A race on purpose: the DMA brings 2.0s from GM, but nothing orders the VADDS after it, so the
; VADDS reads UB while the DMA's write is still in flight and sees the old 1.0s (1.0 + 10 = 11).
; vcore warns "race (RAW): ... (V: VADDS...) reads UB bytes 0x0..0x100 while the write of ...
; (MTE2: DMA.GM2UB...) to them is in flight". The fix is in programs/dma_gaps.asm: SETFLAG
; MTE2, V after the DMA and WAITFLAG MTE2, V before the VADDS.
.gmfill 0x0, f32, 64, 2.0
.ubfill 0x0, f32, 64, 1.0
    DMA.GM2UB [0x0], gm[0x0], len=8        ; 256 bytes, about 106 cycles on MTE2
    VADDS.f32 [0x100], [0x0], 10.0         ; starts at once on V: reads the old data
    HALT
; EXPECT-RACE RAW
; EXPECT ub:0x100:f32:2 = 11.0 11.0
; EXPECT ub:0x0:f32:2 = 2.0 2.0
