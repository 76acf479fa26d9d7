"""Dynamic programs as hypergraphs: Viterbi and inside-outside passes, CKY, taggers, Eisner, head automata."""
