; Recipe: scalar loops - counted loops, a conditional skip, signed compares, S0.
;
;   S1 = 1 + 2 + ... + 100                       (BLT loop)
;   S3 = the sum of the odd numbers in 1..100    (AND + BEQ to skip the even ones)
;   S5 = 1^2 + 2^2 + ... + 10^2                  (MUL)
;   S7 = 100 * 101 >> 1, the closed form of S1   (MUL, SHR)
;   S8 counts down past zero: the branches compare signed, so it stops at -3
;   S0 reads as 0 and ignores writes
    MOV S1, 0
    MOV S2, 1                 ; i
    MOV S3, 0
sum:
    ADD S1, S1, S2
    AND S9, S2, 1
    BEQ S9, 0, even
    ADD S3, S3, S2
even:
    ADD S2, S2, 1
    BLT S2, 101, sum

    MOV S4, 1                 ; j
    MOV S5, 0
squares:
    MUL S6, S4, S4
    ADD S5, S5, S6
    ADD S4, S4, 1
    BGE S4, 11, squares_done
    JMP squares
squares_done:

    MOV S7, 100
    MUL S7, S7, 101
    SHR S7, S7, 1

    MOV S8, 5
down:
    SUB S8, S8, 1
    BGE S8, -2, down

    MOV S0, 7
    ADD S10, S0, 1            ; 0 + 1
    HALT

; EXPECT S1 = 5050
; EXPECT S2 = 101
; EXPECT S3 = 2500
; EXPECT S4 = 11
; EXPECT S5 = 385
; EXPECT S7 = 5050
; EXPECT S8 = -3
; EXPECT S0 = 0
; EXPECT S10 = 1
