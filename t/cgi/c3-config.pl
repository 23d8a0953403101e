# config for c3-*.cgi
$title = "Config Title";
1;
