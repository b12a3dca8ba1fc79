; Cookbook recipe 8: GM -> UB -> V -> UB -> GM over 3 tiles, one UB buffer each way, with flags.
;
; Tile k of GM IN (256 B = 64 f32, value k + 1) is loaded into X (MTE2), doubled into Y (V) and
; stored to GM OUT + 256k (MTE3). Four hand-offs per tile, each a SETFLAG on the producer's
; pipe and a WAITFLAG on the consumer's:
;   MTE2 -> V   event 0  X is full       (RAW on X)
;   V -> MTE3   event 0  Y is full       (RAW on Y)
;   V -> MTE2   event 0  X is free again (WAR: the next load must not overwrite X early)
;   MTE3 -> V   event 0  Y is free again (WAR: the next VMULS must not overwrite Y early)
; The two "free" flags are set once before the loop (both buffers start free) and waited once
; after it, so every SETFLAG has its WAITFLAG. Scalar registers carry the GM addresses.
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
    SETFLAG V, MTE2, 0                 ; X free
    SETFLAG MTE3, V, 0                 ; Y free
tile:
    WAITFLAG V, MTE2, 0
    DMA.GM2UB [X], gm[S1], len=8       ; 8 x 32 B
    SETFLAG MTE2, V, 0                 ; X full
    WAITFLAG MTE2, V, 0
    WAITFLAG MTE3, V, 0
    VMULS.f32 [Y], [X], 2.0
    SETFLAG V, MTE2, 0                 ; X free
    SETFLAG V, MTE3, 0                 ; Y full
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S2], [Y], len=8
    SETFLAG MTE3, V, 0                 ; Y free
    ADD S1, S1, 256
    ADD S2, S2, 256
    ADD S3, S3, 1
    BLT S3, TILES, tile
    WAITFLAG V, MTE2, 0                ; consume the last "free" flags
    WAITFLAG MTE3, V, 0
    HALT

; GM OUT: tile k is 2k + 2; first and last element of each, then past the end
; EXPECT gm:0x10000:f32:1 = 2
; EXPECT gm:0x100fc:f32:2 = 2 4
; EXPECT gm:0x101fc:f32:2 = 4 6
; EXPECT gm:0x102fc:f32:2 = 6 0
; UB holds the last tile
; EXPECT ub:0x0000:f32:1 = 3
; EXPECT ub:0x1000:f32:1 = 6
; EXPECT S3 = 3
