# app2/lib.pl: no package line; same file name as app1/lib.pl, other code.
$title = "Board Two";
sub app_name { return "app2"; }
sub render { return "{app2:" . join("|", @_) . "}"; }
1;
