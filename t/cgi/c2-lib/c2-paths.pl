# YaBB Paths.pl style: found through a relative @INC entry at BEGIN time
$boarddir = "./Boards";
1;
