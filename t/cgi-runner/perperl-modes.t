# The PersistentPerl API in each CGI mode that runs a script persistently:
# i_am_perperl is true; a cleanup runs at the end of each request; a
# shutdown handler runs when the script's state ends: in registry mode
# when the worker ends (not after each request), in perlrun and fork
# mode at the end of each request (the state ends with it). The
# CGI::SpeedyCGI names do the same.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use File::Temp ();
use Kamado::Test qw(start_server wait_until);
use Kamado::Test::CGI qw(put_script get_script);

my $root = File::Temp::tempdir(CLEANUP => 1);
my $out = File::Temp::tempdir(CLEANUP => 1);
sub lines {
    open my $fh, '<', "$out/$_[0]" or return ();
    return map { chomp; $_ } <$fh>;
}
for my $module (qw(PersistentPerl CGI::SpeedyCGI)) {
    (my $name = lc $module) =~ s/\W+/-/g;
    put_script($root, "$name.cgi", <<"CGI");
#!/usr/bin/perl
use $module;
our \$pp;
my \$new = !defined \$pp;
\$pp //= $module->new;
\$pp->add_shutdown_handler(sub { open my \$f, '>>', "$out/$name.shutdown"; print \$f "\$\$\\n" }) if \$new;
\$pp->register_cleanup(sub { open my \$f, '>>', "$out/$name.cleanup"; print \$f "\$\$\\n" });
print "Content-Type: text/plain\\n\\n";
print 'perperl=', (\$pp->i_am_perperl ? 1 : 0), ' group=', \$pp->getgroupname, " pid=\$\$\\n";
CGI
}

for my $mode (qw(registry perlrun fork)) {
    unlink glob "$out/*";
    my $server = start_server(no_app => 1, workers => 1, args => ['--cgi-bin', $root, '--cgi-mode', $mode]);
    for my $name (qw(persistentperl cgi-speedycgi)) {
        my @bodies = map { get_script($server, "$name.cgi")->{body} } 1 .. 3;
        like $_, qr/^perperl=1 group=none pid=\d+$/, "$mode $name: i_am_perperl" for @bodies;
        my @pids = map { /pid=(\d+)/ } @bodies;
        is_deeply [lines("$name.cleanup")], \@pids, "$mode $name: a cleanup after each request, in its process";
        if ($mode eq 'registry') {
            is_deeply [lines("$name.shutdown")], [], "$mode $name: no shutdown handler while the worker serves";
        } else {
            is_deeply [lines("$name.shutdown")], \@pids, "$mode $name: the shutdown handler at the end of each request";
        }
    }
    # (the worker, once it has answered: it may not be forked yet when the
    # server says it accepts)
    my ($worker) = $server->workers;
    is $server->stop, 0, "$mode: TERM: exit 0";
    if ($mode eq 'registry') {
        is_deeply [lines("$_.shutdown")], [$worker], "$mode $_: the shutdown handler once, when the worker ended"
            or diag $server->log for qw(persistentperl cgi-speedycgi);
    }
    unlike $server->log, qr/died|\.cgi:/, "$mode: nothing wrong in the log";
}
done_testing;
