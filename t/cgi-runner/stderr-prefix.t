# What a CGI script writes to STDERR reaches the error log one line at a
# time, each line prefixed with the script's path and the request id (as
# Apache prefixes a script's lines with its path), in every mode; perl's
# compile errors too (fork mode's compile runs in the zygote).
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server eventually);
use Kamado::Test::CGI qw(put_script get_script);
Kamado::Test::allow_errors(qr/bad\.cgi: (?:could not be compiled|end of script output before headers)/);

my $root = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'warn.cgi', <<'CGI');
#!/usr/bin/perl
print STDERR "line one\nline two\n";
warn "warned\n";
print "Content-Type: text/plain\n\n$ENV{UNIQUE_ID}";
print STDERR "no newline at the end";
CGI
put_script($root, 'bad.cgi', "#!/usr/bin/perl\nmy \$x = ;\n");

for my $mode (qw(fork exec registry perlrun)) {
    my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $r = get_script($server, 'warn.cgi');
    my $id = $r->{body};
    like $id, qr/\A\S+\z/, "$mode: the script ran, and saw its request id";
    my $prefix = qr/^\Q$root\E\/warn\.cgi \[\Q$id\E\]: /m;
    ok eventually(sub { $server->log =~ /${prefix}no newline at the end$/m }), "$mode: its lines are in the log";
    my $log = $server->log;
    like $log, qr/${prefix}line one\n/, "$mode: a line of STDERR, prefixed with the script's path and the request id";
    like $log, qr/${prefix}line two\n/, "$mode: the next line, prefixed too";
    like $log, qr/${prefix}warned\n/, "$mode: warn's line";
    unlike $log, qr/^(?:line one|line two|warned)$/m, "$mode: no line bare";

    is get_script($server, 'bad.cgi')->{status}, 500, "$mode: a script that does not compile: 500";
    ok eventually(
        sub { $server->log =~ m{^\Q$root\E/bad\.cgi(?: \[[^\]]+\])?: syntax error at \Q$root\E/bad\.cgi line 2}m }),
        "$mode: perl's compile error, prefixed with the script's path"
        or diag $server->log;
    unlike $server->log, qr/^syntax error/m, "$mode: not bare";
    is $server->stop, 0, "$mode: stopped";
}
done_testing;
