#!/usr/bin/perl
# D8b: __DATA__ under the script's own package (Blosxom keeps templates
# there). Plain CGI: blosxom::DATA holds the templates, on every request.
package blosxom;
($flavour) = $ENV{'QUERY_STRING'} =~ /flav=(\w+)/;
$flavour ||= 'html';
while (<DATA>) {
    last if /^(__END__)?$/;
    ($fl, $comp, $txt) = /^(\S+)\s(\S+)\s(.*)$/;
    $template{$fl}{$comp} = $txt;
}
print "Content-type: text/plain\n\n";
print "flavour=$flavour head=$template{$flavour}{head} foot=$template{$flavour}{foot}\n";
print "main_data=", (defined(fileno(main::DATA)) ? "open" : "none"), "\n";
__DATA__
html head <html><body>
html foot </body></html>
rss head <rss>
rss foot </rss>
__END__
