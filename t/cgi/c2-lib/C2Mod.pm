package C2Mod;
# module for c2-use-lib.cgi, found through use lib './c2-lib'
sub hello { return "C2Mod from c2-lib" }
1;
