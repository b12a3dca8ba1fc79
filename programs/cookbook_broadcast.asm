; Cookbook recipe 1: broadcast a row (src1rep=0) and one datablock (src1blk=0, src1rep=0).
;
; MAT is 4 rows x 128 f16 (one VL per row), row r = 10 * r.
; ROW is one VL: block 0 holds 100, 101, ..., 115, block b (1..7) holds 200 * b.
; The 256 bytes after ROW (0x0900..0x09ff) are zero.
;   A  src1rep=0:            every iteration re-reads the 8 blocks of ROW
;                            -> OUT_A row r = MAT row r + ROW
;   B  src1blk=0, src1rep=0: every block of every iteration re-reads ROW block 0
;                            -> OUT_B element k of row r = 10r + 100 + k % 16
;   C  src1blk=0 only (the pitfall): the repeat stride is still 8, so iteration 1 broadcasts
;                            the block at ROW + 256 (zeros), not ROW block 0
.equ MAT,   0x0000         ; 4 x 256 B
.equ ROW,   0x0800         ; 256 B
.equ OUT_A, 0x1000
.equ OUT_B, 0x2000
.equ OUT_C, 0x3000
.ubfill MAT + 0x000, f16, 128, 0.0
.ubfill MAT + 0x100, f16, 128, 10.0
.ubfill MAT + 0x200, f16, 128, 20.0
.ubfill MAT + 0x300, f16, 128, 30.0
.ub ROW, f16, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115
.ubfill ROW + 0x20, f16, 16, 200.0
.ubfill ROW + 0x40, f16, 16, 400.0
.ubfill ROW + 0x60, f16, 16, 600.0
.ubfill ROW + 0x80, f16, 16, 800.0
.ubfill ROW + 0xa0, f16, 16, 1000.0
.ubfill ROW + 0xc0, f16, 16, 1200.0
.ubfill ROW + 0xe0, f16, 16, 1400.0

    VADD.f16 [OUT_A], [MAT], [ROW], repeat=4, src1rep=0               ; A
    VADD.f16 [OUT_B], [MAT], [ROW], repeat=4, src1blk=0, src1rep=0    ; B
    VADD.f16 [OUT_C], [MAT], [ROW], repeat=2, src1blk=0               ; C (pitfall)
    HALT

; A: row 0 block 0, the block 0/1 boundary, row 0 -> row 1, the end of row 3, past the end
; EXPECT ub:0x1000:f16:2 = 100 101
; EXPECT ub:0x101e:f16:2 = 115 200
; EXPECT ub:0x10fe:f16:2 = 1400 110
; EXPECT ub:0x1300:f16:1 = 130
; EXPECT ub:0x13fe:f16:2 = 1430 0
; B: block 0 of ROW in every block
; EXPECT ub:0x2000:f16:2 = 100 101
; EXPECT ub:0x201e:f16:2 = 115 100
; EXPECT ub:0x20fe:f16:2 = 115 110
; EXPECT ub:0x23fe:f16:2 = 145 0
; C: iteration 0 is right, iteration 1 added the zeros at ROW + 256
; EXPECT ub:0x3000:f16:1 = 100
; EXPECT ub:0x30e0:f16:1 = 100
; EXPECT ub:0x30fe:f16:2 = 115 10
; EXPECT ub:0x31fe:f16:2 = 10 0
