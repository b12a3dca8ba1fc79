; Recipe: broadcast one datablock with block stride 0 and repeat stride 0 (a bias add).
;
; A bias row of 16 f16 values (exactly one 32-byte datablock) is added to a 3 x 128 f16 tile.
;   src1blk=0  every datablock of an iteration re-reads the bias block,
;   src1rep=0  every iteration re-reads the same blocks,
; so src1 never moves and element k of the result is tile[k] + bias[k % 16].
; dst and src0 keep the defaults (blk 1, rep 8): 3 contiguous iterations of 256 B.
; The second instruction is a pure broadcast: x + 0.0 with both strides of the source at 0
; writes the bias row 16 times (2 iterations x 8 blocks).
.equ TILE, 0x0000          ; 384 f16 = 0x300 bytes
.equ BIAS, 0x0400          ; 16 f16 = one datablock
.equ OUT,  0x1000
.equ ROWS, 0x2000
.ubfill TILE, f16, 384, 10.0
.ub BIAS, f16, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75

    VADD.f16  [OUT], [TILE], [BIAS], repeat=3, src1blk=0, src1rep=0
    VADDS.f16 [ROWS], [BIAS], 0.0, repeat=2, srcblk=0, srcrep=0
    HALT

; iteration 0, blocks 0 and 1: the bias row twice
; EXPECT ub:0x1000:f16:32 = 10 10.25 10.5 10.75 11 11.25 11.5 11.75 12 12.25 12.5 12.75 13 13.25 13.5 13.75 10 10.25 10.5 10.75 11 11.25 11.5 11.75 12 12.25 12.5 12.75 13 13.25 13.5 13.75
; iteration 2, block 0 (element 256) and the last element (383), then past the end
; EXPECT ub:0x1200:f16:4 = 10 10.25 10.5 10.75
; EXPECT ub:0x12fc:f16:4 = 13.5 13.75 0 0
; pure broadcast: element 16*k + j is bias[j], for 256 elements
; EXPECT ub:0x2000:f16:4 = 0 0.25 0.5 0.75
; EXPECT ub:0x21e0:f16:4 = 0 0.25 0.5 0.75
; EXPECT ub:0x21fc:f16:4 = 3.5 3.75 0 0
