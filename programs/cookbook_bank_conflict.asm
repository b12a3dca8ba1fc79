; Cookbook recipe 9 (before): a tile worked column by column, its datablocks in one UB bank group.
;
; X, Y, T and Z are tiles of 8 rows of 64 f32 (a row is 256 bytes, one VL). Iteration r takes
; datablock r of every row (block stride 8: the rows, 256 bytes apart; repeat stride 1: the next
; datablock), so the 8 blocks of an iteration are 256 bytes apart.
; 950 banks (docs/timing.md): group = address bits [7:5], bank bit = bit 8. Blocks 256 bytes apart
; are all in one group (its two banks, by turns): a datablock-mode access takes one block a group
; a beat, so every load and store of an iteration takes 8 beats, and an access of several beats
; holds all of UB's ports for them. On a vector function, as the 950 runs each instruction.
; The fix is in programs/cookbook_bank_conflict_fixed.asm.
.equ X, 0x0000             ; 8 x 64 f32 = 2 KiB each
.equ Y, 0x2000
.equ T, 0x4000
.equ Z, 0x6000
.ubfill X, f32, 512, 1.5
.ubfill Y, f32, 512, 0.25

    VADD.f32  [T], [X], [Y], repeat=8, dstblk=8, src0blk=8, src1blk=8, dstrep=1, src0rep=1, src1rep=1
    VMULS.f32 [Z], [T], 0.5, repeat=8, dstblk=8, srcblk=8, dstrep=1, srcrep=1
    HALT

; T = 1.5 + 0.25 = 1.75, Z = 0.875: first and last element, and past the end
; EXPECT ub:0x4000:f32:1 = 1.75
; EXPECT ub:0x47fc:f32:2 = 1.75 0
; EXPECT ub:0x6000:f32:1 = 0.875
; EXPECT ub:0x67fc:f32:2 = 0.875 0
