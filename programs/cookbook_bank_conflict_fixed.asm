; Cookbook recipe 9 (after): the kernel of cookbook_bank_conflict.asm worked row by row: iteration
; r is row r, 8 contiguous datablocks, one in each of the 950's 8 bank groups (the block and repeat
; strides left at their defaults, 1 and 8). Each load and store of an iteration is one beat, and
; the function's loads and stores share cycles as UB's ports allow: an elementwise operation gives
; the same result in either order.
; (The 3510 programming guide's advice for the same tile: "worked by column, the 8 datablocks of a
; repeat are in one bank group and conflict; worked by row, they are not".)
;
.equ X, 0x0000             ; 8 x 64 f32 = 2 KiB each
.equ Y, 0x2000
.equ T, 0x4000
.equ Z, 0x6000
.ubfill X, f32, 512, 1.5
.ubfill Y, f32, 512, 0.25

    VADD.f32  [T], [X], [Y], repeat=8
    VMULS.f32 [Z], [T], 0.5, repeat=8
    HALT

; EXPECT ub:0x4000:f32:1 = 1.75
; EXPECT ub:0x47fc:f32:2 = 1.75 0
; EXPECT ub:0x6000:f32:1 = 0.875
; EXPECT ub:0x67fc:f32:2 = 0.875 0
