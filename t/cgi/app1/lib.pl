# app1/lib.pl: no package line; same file name as app2/lib.pl.
$title = "Guestbook One";
sub app_name { return "app1"; }
sub render { return "<app1>" . join(",", @_) . "</app1>"; }
1;
