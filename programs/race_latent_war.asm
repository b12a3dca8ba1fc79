; A race that only the order of the instructions shows (docs/timing.md, "Races by order"): the pipeline of
; cookbook recipe 8 (programs/cookbook_dma_pipeline.asm) without its two "free" flags, V -> MTE2
; (X free) and MTE3 -> V (Y free). With vcore's timing every value comes out right and no two
; accesses meet in time: each tile's DMA waits for its predecessor and V is quick. But nothing
; orders the next tile's load into X after the VMULS that reads X, nor the next VMULS into Y after
; the store that reads Y: on hardware, with other clocks, other tile sizes or other cores on the
; same GM, they can meet. vcore names both as latent races (warning: latent race (WAR) ...).
.equ IN,    0x0000         ; GM, 3 x 256 B
.equ OUT,   0x10000        ; GM
.equ X,     0x0000         ; UB
.equ Y,     0x1000         ; UB
.equ TILES, 3
.gmfill IN + 0x000, f32, 64, 1.0
.gmfill IN + 0x100, f32, 64, 2.0
.gmfill IN + 0x200, f32, 64, 3.0

    MOV S1, IN
    MOV S2, OUT
    MOV S3, 0
tile:
    DMA.GM2UB [X], gm[S1], len=8       ; 8 x 32 B
    SETFLAG MTE2, V, 0                 ; X full
    WAITFLAG MTE2, V, 0
    VMULS.f32 [Y], [X], 2.0
    SETFLAG V, MTE3, 0                 ; Y full
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S2], [Y], len=8
    ADD S1, S1, 256
    ADD S2, S2, 256
    ADD S3, S3, 1
    BLT S3, TILES, tile
    HALT

; the values are right in this run's timing, and the two races are latent
; EXPECT-RACE WAR
; EXPECT gm:0x100fc:f32:2 = 2 4
; EXPECT gm:0x101fc:f32:2 = 4 6
; EXPECT gm:0x102fc:f32:2 = 6 0
