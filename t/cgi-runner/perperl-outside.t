# Outside Kamado's persistent modes, as under plain CGI (exec mode runs a
# new perl per request, as mod_cgi does), a script written for
# PersistentPerl still runs: i_am_perperl is false, the cleanups and then
# the shutdown handlers run when the process ends, shutdown_next_time
# does nothing, shutdown_now ends the process, setopt and getopt keep
# what they are given.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Cwd ();
use Kamado::Test qw(start_server);
use Kamado::Test::CGI qw(put_script get_script);

my $lib = Cwd::abs_path('blib/lib');
my $root = File::Temp::tempdir(CLEANUP => 1);
my $out = File::Temp::tempdir(CLEANUP => 1);
put_script($root, 'plain.cgi', <<"CGI");
#!/usr/bin/perl
use PersistentPerl;
use CGI::SpeedyCGI;
\$| = 1;
my \$pp = PersistentPerl->new;
sub note { open my \$f, '>>', "$out/order"; print \$f "\@_\\n" }
\$pp->add_shutdown_handler(sub { note('shutdown') });
\$pp->register_cleanup(sub { note('cleanup') });
print "Content-Type: text/plain\\n\\n";
print 'perperl=', (\$pp->i_am_perperl ? 1 : 0), ' speedy=', (CGI::SpeedyCGI->new->i_am_speedy ? 1 : 0), "\\n";
\$pp->setopt('TimeOut', 30);
print 'old=', \$pp->setopt('timeout', 60), ' now=', CGI::SpeedyCGI->new->getopt('TIMEOUT'), "\\n";
\$pp->shutdown_next_time;
print "after next\\n";
note('script');
\$pp->shutdown_now if \$ENV{QUERY_STRING} eq 'now';
print "after now\\n";
CGI
sub order {
    open my $fh, '<', "$out/order" or return '';
    local $/;
    my $text = <$fh>;
    unlink "$out/order";
    return $text;
}

my $server = start_server(no_app => 1, workers => 1,
    args => ['--cgi-bin', $root, '--cgi-mode', 'exec', '--cgi-env', "PERL5LIB=$lib"]);
is get_script($server, 'plain.cgi?')->{body}, "perperl=0 speedy=0\nold=30 now=60\nafter next\nafter now\n",
    'i_am_perperl false; setopt and getopt; shutdown_next_time returns';
is order(), "script\ncleanup\nshutdown\n", 'at the end of the process: the cleanup, then the shutdown handler';
is get_script($server, 'plain.cgi?now')->{body}, "perperl=0 speedy=0\nold=30 now=60\nafter next\n",
    'shutdown_now ends the script';
is order(), "script\ncleanup\nshutdown\n", 'and the handlers run';
is $server->stop, 0, 'TERM: exit 0';
unlike $server->log, qr/plain\.cgi/, 'nothing about the script in the log';
done_testing;
