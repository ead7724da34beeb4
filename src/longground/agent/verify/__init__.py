"""Step 3: the verification loop (CoMET Algorithm 1), its memory bank and candidate order."""
