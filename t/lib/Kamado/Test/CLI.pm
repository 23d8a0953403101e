package Kamado::Test::CLI;
use 5.024;
use strict;
use warnings;

# Runs script/kamado directly (not through start_server) and collects its
# exit status and output, killing it if it does not exit in time (a CLI
# error that is not caught would otherwise start serving and hang the test).

use Exporter 'import';
use File::Spec;
use File::Temp ();
use POSIX ();
use Time::HiRes ();

our @EXPORT_OK = qw(run_kamado $ROOT);

our $ROOT;
use Cwd ();
BEGIN { $ROOT = Cwd::abs_path(File::Spec->catdir(__FILE__ =~ m{^(.*)/[^/]*$} ? $1 : '.', ('..') x 4)) }

# run_kamado(@args) -> { status => exit code or -1 if killed, signal,
#                        stdout, stderr, timed_out }
# ({ command => [...] }, @args) runs another front end (plackup -s Kamado).
sub run_kamado {
    my (@args) = @_;
    my %opt = ref $args[0] eq 'HASH' ? %{ shift @args } : ();
    my $out = File::Temp->new;
    my $err = File::Temp->new;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        delete @ENV{qw(LISTEN_FDS LISTEN_PID SERVER_STARTER_PORT)};
        chdir $opt{cwd} or POSIX::_exit(111) if $opt{cwd};
        open STDIN, '<', File::Spec->devnull or POSIX::_exit(111);
        open STDOUT, '>&', $out or POSIX::_exit(111);
        open STDERR, '>&', $err or POSIX::_exit(111);
        exec($^X, "-I$ROOT/blib/lib", "-I$ROOT/blib/arch", ($opt{command} // ["$ROOT/script/kamado"])->@*, @args) or POSIX::_exit(111);
    }
    my $deadline = Time::HiRes::time() + ($opt{timeout} // 10);
    my ($status, $timed_out);
    while (1) {
        if (waitpid($pid, POSIX::WNOHANG()) > 0) { $status = $?; last }
        if (Time::HiRes::time() > $deadline) {
            kill KILL => $pid;
            waitpid $pid, 0;
            ($status, $timed_out) = ($?, 1);
            last;
        }
        Time::HiRes::sleep(0.01);
    }
    my $slurp = sub { open my $fh, '<', $_[0]->filename or return ''; local $/; scalar(<$fh>) // '' };
    return {
        status    => $status & 127 ? -1 : $status >> 8,
        signal    => $status & 127,
        timed_out => $timed_out,
        stdout    => $slurp->($out),
        stderr    => $slurp->($err),
    };
}

1;
