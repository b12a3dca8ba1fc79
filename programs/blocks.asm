; Blocks beyond the cores: y = x + 1 over 12 tiles of 64 f32, one tile a block, launched as 12
; blocks on 4 cores. Blocks 0..3 start at the launch on cores 0..3; each later block starts on the
; first core to finish its block, as fresh as a new core (UB and registers zero), so a block finds
; its tile from BLOCKIDX alone and shares nothing with the block that ran before it on its core.
;     vcore run programs/blocks.asm                      (its RUN line: --blocks 12 --cores 4)
; The report's per_core rows list the blocks each core ran, with their start and end cycles.
; RUN --blocks 12 --cores 4
.equ TILE, 256                  ; bytes a tile: 64 f32, one VADDS iteration
.equ GY, 0x4000                 ; GM: y (x is at 0)
.equ SEEN, 0x8000               ; GM: each block's BLOCKIDX and BLOCKNUM, as it read them
.gmfill 0x0, f32, 12 * 64, 2.5
    MOV S1, BLOCKIDX            ; 0..11
    MOV S2, BLOCKNUM            ; 12
    MUL S3, S1, TILE            ; this block's tile
    DMA.GM2UB [0x0], gm[S3], len=TILE / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADDS.f32 [0x100], [0x0], 1.0
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S3 + GY], [0x100], len=TILE / 32
    SHL S4, S1, 3
    ST.u32 gm[S4 + SEEN], S1
    ST.u32 gm[S4 + SEEN + 4], S2
    HALT
; EXPECT gm:0x4000:f32:2 = 3.5 3.5
; EXPECT gm:0x4BF8:f32:2 = 3.5 3.5
; EXPECT gm:0x8000:u32:6 = 0 12 1 12 2 12
; EXPECT gm:0x8058:u32:2 = 11 12
