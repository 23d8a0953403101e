# private library of c6-reload.cgi
$LIB_VERSION = 1;
1;
