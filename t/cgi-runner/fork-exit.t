# Mode fork: how a request's process ends. A child whose global
# destruction would show nothing leaves with _exit (Kamado.xs,
# Kamado::CGI::Process::Zygote::_exit_if_quiet); whatever perl's exit does that
# shows must still happen, in both ways out: END blocks, DESTROY of what is
# left, buffers of handles the script never closed, encoding layers, a pipe
# to a process, File::Temp's cleanup, the exit code's END blocks seeing $?.
# Also: a signal handler set in a BEGIN block stays (as under CGI), and
# each request has its own rand sequence and start time.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Kamado::Test::Log qw($PREFIX);
use File::Temp ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $out = File::Temp::tempdir(CLEANUP => 1);
sub put { put_script($root, @_) }
my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', 'fork']);
sub get { get_script($server, @_) }
my $head = 'print qq{Content-Type: text/plain\n\n};';

# nothing to see: the quick way out, buffers written
put('quiet.cgi', <<"CGI");
$head
# (a global: a file-scoped lexical is freed, so closed, before END)
open OUT, '>', '$out/quiet.txt' or die;
print OUT 'written at exit';    # never closed, never flushed
package Empty; sub DESTROY {}   # perl would not call it either
package main;
our \$o = bless {}, 'Empty';
my \$re = qr/x/;                  # a Regexp object: its DESTROY is a no-op
print 'quiet';
CGI
# an object with a DESTROY: perl's exit
put('destroy.cgi', <<"CGI");
$head
package Noisy; sub DESTROY { print "destroyed \$_[0]{name}\\n" }
package main;
our \$global = bless { name => 'global' }, 'Noisy';
my \$lexical = bless { name => 'lexical' }, 'Noisy';
print "body\\n";
CGI
# DESTROY through AUTOLOAD
put('autoload.cgi', <<"CGI");
$head
package Auto; our \$AUTOLOAD; sub AUTOLOAD { print "autoload \$AUTOLOAD\\n" }
package main;
our \$o = bless {}, 'Auto';
CGI
# END blocks, last one first, and $?
put('end.cgi', <<"CGI");
$head
END { print "end one, status \$?\\n" }
END { print "end two\\n"; \$? = 3 }
print "body\\n";
exit 5;
CGI
# a handle with an encoding layer: popped at exit
put('encoding.cgi', <<"CGI");
$head
binmode STDOUT, ':encoding(UTF-8)';
print "\\x{263A}";
CGI
# a pipe to a process: closed (and waited for) at exit, after the END
# blocks (its buffer is written only then: cat prints after the END)
put('pipe.cgi', <<"CGI");
\$| = 1;
$head
our \$pid = open PIPE, '|-', 'cat' or die;
print PIPE "through cat\\n";
END { print "cat runs\\n" if kill 0, \$pid }
CGI
# File::Temp's objects and END remove their files
put('tempfile.cgi', <<"CGI");
use File::Temp ();
$head
our \$t = File::Temp->new(DIR => '$out', SUFFIX => '.object');
my (undef, \$name) = File::Temp::tempfile(DIR => '$out', SUFFIX => '.end', UNLINK => 1);
print \$t->filename, "\\n", \$name, "\\n";
CGI
# a BEGIN-time handler is the script's, as under CGI
put('begin-signal.cgi', <<"CGI");
BEGIN { \$SIG{USR1} = sub { print "caught USR1\\n" } }
$head
kill USR1 => \$\$;
print "after\\n";
CGI
put('rand.cgi', "$head\nprint int(rand(1e9)), ' ', \$^T;\n");

is get('quiet.cgi')->{body}, 'quiet', 'quiet: the response';
open my $fh, '<', "$out/quiet.txt" or die;
is scalar(<$fh>), 'written at exit', 'quiet: a handle never closed has its buffer written';
is get('destroy.cgi')->{body}, "body\ndestroyed lexical\ndestroyed global\n", 'DESTROY at exit, as under perl';
is get('autoload.cgi')->{body}, "autoload Auto::DESTROY\n", 'DESTROY through AUTOLOAD';
is get('end.cgi')->{body}, "body\nend two\nend one, status 3\n", 'END blocks, last first, with $?';
is get('encoding.cgi')->{body}, "\xe2\x98\xba", 'an encoding layer flushed';
is get('pipe.cgi')->{body}, "cat runs\nthrough cat\n", 'a pipe to a process closed at exit';
my ($object, $end) = split /\n/, get('tempfile.cgi')->{body};
ok $object && !-e $object, 'File::Temp: the object removed its file';
ok $end && !-e $end, "File::Temp: its END removed tempfile()'s";
is get('begin-signal.cgi')->{body}, "caught USR1\nafter\n", 'a signal handler set in BEGIN stays';
my %seen;
for (1 .. 5) {
    my ($rand) = split / /, get('rand.cgi')->{body};
    $seen{$rand}++;
}
is scalar(keys %seen), 5, 'each request its own rand sequence';
unlike $server->log, qr/^$PREFIX.*(?:could not|no output)/m, 'nothing wrong in the log';

is $server->stop, 0, 'TERM: exit 0';
done_testing;
