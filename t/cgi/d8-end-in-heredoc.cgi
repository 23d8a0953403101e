#!/usr/bin/perl
# D8e: a line "__END__" inside a heredoc, and a POD block. Plain CGI: the
# heredoc is printed whole; "__END__" inside it is just text.
$page = <<'HTML';
<pre>
config:
__END__
tail of the heredoc
</pre>
HTML
print "Content-type: text/plain\n\n";
print $page;

=pod

__END__ inside pod is ignored too

=cut

print "after pod\n";
__END__
print "AFTER-REAL-END\n";
