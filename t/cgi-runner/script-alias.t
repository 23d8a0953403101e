# --cgi-bin is Apache's ScriptAlias: every file under it is a script and
# nothing there is ever sent as content, in every mode. Names that were
# sent as source because they lack the .cgi/.pl extension (no extension,
# another case, editors' leftovers, a link with another name, data files)
# run when executable and are a 500 (with a log line naming the file, as
# Apache's failed exec) when not; none ever shows a byte of its source.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);
# the [error] lines this test provokes on purpose
Kamado::Test::allow_errors(
    qr/malformed header from script|no #! line and no script extension|not executable by the server/);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $MARK = 'SOURCE-MARKER-3f9a';
my $hello = "#!/usr/bin/perl\n# $MARK\nprint qq{Content-Type: text/plain\\n\\nhello from \$ENV{SCRIPT_NAME}};\n";
sub put_file {
    my ($name, $content, $mode) = @_;
    put_script($root, $name, $content);
    chmod $mode, "$root/$name" or die "$name: $!";
}
# executable: run as scripts, whatever their name
put_file($_, $hello, 0755) for 'hello.cgi', 'hello', 'HELLO.CGI', 'Hello.Pl', 'run.cgi~';
put_file('shell', "#!/bin/sh\n# $MARK\nprintf 'Content-Type: text/plain\\n\\nfrom sh'\n", 0755);
symlink 'hello.cgi', "$root/linked.txt" or die;
# a program: run as one (its output is no CGI head: 500), never compiled as perl
{
    open my $in, '<:raw', '/usr/bin/env' or die;
    put_file('program', do { local $/; <$in> }, 0755);
}
# not executable: 500, never sent
put_file($_, $hello, 0644) for 'x.cgi~', 'x.cgi.bak', 'x.cgi.', 'x.cgi.orig', '#x.cgi#', 'HELLO2.CGI', 'plain';
put_file('passwd.txt', "root:$MARK:0:0\n", 0644);
put_file('counter.dat', "$MARK 1234\n", 0644);
put_file('access.log', "127.0.0.1 $MARK\n", 0644);
symlink 'x.cgi.bak', "$root/bak-link.txt" or die;
# executable, but data: perl makes nothing of it, and nothing is sent
put_file('data.log', "$MARK line one\n", 0755);
# executable data that perl would run (a guestbook entry): no #! line and
# no script extension, so not run (Apache's exec fails on it too)
put_file('guestbook.dat', "print qq{Content-Type: text/plain\\n\\nEXECUTED};\n# $MARK\n", 0755);
# a script without a #! line, named as one: perl runs it
put_file('nohash.cgi', "print qq{Content-Type: text/plain\\n\\nno hash};\n# $MARK\n", 0755);
symlink 'nohash.cgi', "$root/nohash-link" or die;
mkdir "$root/dir" or die;
put_file('dir/notes.txt', "$MARK\n", 0644);

for my $mode (qw(fork exec registry perlrun)) {
    note "mode $mode";
    my $server = start_server(no_app => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    my $get = sub { get_script($server, $_[0]) };
    for my $name ('hello.cgi', 'hello', 'HELLO.CGI', 'Hello.Pl', 'run.cgi~', 'linked.txt') {
        my $r = $get->($name);
        is $r->{status}, 200, "$name: executable, so run";
        is $r->{body}, "hello from /cgi-bin/$name", "$name: its output";
    }
    is $get->('shell')->{body}, 'from sh', 'a #!/bin/sh script without extension runs through its #! line';
    for my $name ('x.cgi~', 'x.cgi.bak', 'x.cgi.', 'x.cgi.orig', '%23x.cgi%23', 'HELLO2.CGI', 'plain', 'passwd.txt',
                  'counter.dat', 'access.log', 'bak-link.txt', 'dir/notes.txt') {
        my $r = $get->($name);
        is $r->{status}, 500, "$name: not executable: 500";
        unlike $r->{body}, qr/\Q$MARK/, "$name: nothing of it is sent";
    }
    (my $bak = "$root/x.cgi.bak") =~ s/\./\\./g;
    like $server->log, qr{$bak: not executable}, 'the log names the file that is not executable';
    my $r = $get->('data.log');
    is $r->{status}, 500, 'an executable data file: perl makes nothing of it: 500';
    unlike $r->{body}, qr/\Q$MARK/, 'and nothing of it is sent';
    $r = $get->('guestbook.dat');
    is $r->{status}, 500, 'executable data without #! or a script extension: 500';
    unlike $r->{body}, qr/EXECUTED|\Q$MARK/, 'not run as perl, not sent';
    like $server->log, qr{\Q$root/guestbook.dat\E: no #! line and no script extension}, 'the log says why';
    is $get->('nohash.cgi')->{body}, 'no hash', 'a .cgi without a #! line runs as perl';
    is $get->('nohash-link')->{body}, 'no hash', 'and through a link to it';
    is $get->('program')->{status}, 500, 'a program without a CGI head: 500';
    like $server->log, qr{\Q$root/program\E: malformed header from script}, 'it was run, not compiled as perl';
    is $get->('dir/')->{status}, 403, 'a directory without an index script: 403, no listing';
    is $get->('missing')->{status}, 404, 'a missing file: 404';
    unlike $get->('hello.cgi')->{body}, qr/\Q$MARK/, 'a script is run, never sent';
    is $server->stop, 0, 'the server stops cleanly';
}
done_testing;
