package Kamado::CGI::InProcess::World;
use 5.024;
use strict;
use warnings;

use B ();
use Cwd ();
use Kamado ();    # (the XS below)

# The world a script runs in inside the worker (modes registry and
# perlrun, Kamado::CGI::InProcess::Run), swapped in for each run and the
# worker's put back after it, whatever the script did: descriptors 0, 1
# and 2 with perl's STDIN, STDOUT and STDERR on them (the body, a file
# collecting the output, a file collecting the errors), %ENV, the working
# directory, $0, the special variables and @INC, umask, the selected
# handle, the signal handlers. The swaps are in XS (one call each way:
# kd_world_enter and kd_world_leave in xs/cgi/kd_cgi_world.c); here is what is
# opened once per worker, and the few things done in perl.
#
# In XS, in this package:
#   world_enter(IN_FD, OUT_FD, ERR_FD, ENV, FIXED, DIR, SCRIPT, LINE_ENDS,
#       WARNINGS, MAX_ERR) -> the bits of the standard handles that were
#       closed (with MAX_ERR, the output and error files made ready first:
#       the output at its start, the errors after what earlier runs left)
#   world_leave(CWD) -> (those bits, what the run wrote to its error file
#       or undef, then name => handler of each signal handler the run
#       changed, for %SIG)
#   signal_state() and changed_signals(STATE): the handlers, and which changed
#   new_page(FORMAT, GLOB, TOP, GLOB): STDOUT's format page as a new process has it
#   fresh_seed(FD): srand with four bytes of FD (the random file below)
#   read_output(OUT_FD): what a run wrote to its output file
#   flush_all(): every handle's buffer written

# files() -> { out, err (the files that collect a run's output and
# errors), null (/dev/null, for a request without a body), random
# (/dev/urandom, for each run's srand: fresh_seed), cwd (the worker's) }.
# Files, not pipes: a script's background child must close STDOUT as under
# CGI, where the server waits for it otherwise.
sub files {
    my %files;
    # (in memory where there is a tmpfs: emptied every request, a
    # file on disk costs a journal entry each time)
    local $ENV{TMPDIR} = '/dev/shm' if -d '/dev/shm' && -w _;
    open $files{out}, '+>', undef or die "Can't make a temporary file: $!\n";
    open $files{err}, '+>', undef or die "Can't make a temporary file: $!\n";
    open $files{null}, '<', '/dev/null' or die "Can't open /dev/null: $!\n";
    open $files{random}, '<:raw', '/dev/urandom' or die "Can't open /dev/urandom: $!\n";
    $files{cwd} = Cwd::getcwd();
    return \%files;
}

# A handle the script closed is opened again on its descriptor (the
# descriptors and perl's handles on them are swapped by world_enter and
# world_leave); CLOSED has a bit for each of STDIN, STDOUT, STDERR.
sub reopen_std {
    my ($closed) = @_;
    my @std = (\*STDIN, \*STDOUT, \*STDERR);
    for my $n (grep { $closed & 1 << $_ } 0 .. 2) {
        open $std[$n], ($n ? '>&=' : '<&='), $n or die "Can't reopen descriptor $n: $!\n";
    }
}

# Whether File::Temp has files or directories to remove "at exit" (a run's
# tempfile(UNLINK => 1)): its cleanup() is called only then, being dear
# for a run that made none.
# The lists are file-scoped lexicals its cleanup() closes over, found once;
# where they are not found (another File::Temp), always.
my $temp_lists;
sub temp_files {
    return 0 unless defined &File::Temp::cleanup;
    $temp_lists //= do {
        my ($names, $values) = B::svref_2object(\&File::Temp::cleanup)->PADLIST->ARRAY;
        my @values = $values->ARRAY;
        my @lists;
        for my $i (0 .. $#values) {
            my $name = ($names->ARRAY)[$i];
            push @lists, $values[$i]->object_2svref
                if $$name && defined $name->PV && $name->PV =~ /\A%(?:files|dirs)_to_unlink\z/;
        }
        @lists == 2 ? \@lists : 0;
    };
    return 1 unless $temp_lists;
    # (pid => [what to remove], emptied by cleanup)
    return scalar grep { grep { @$_ } values %$_ } @$temp_lists;
}

1;
__END__

=head1 NAME

Kamado::CGI::InProcess::World - the worker's world put aside while a script runs in it

=head1 SYNOPSIS

    my $files = Kamado::CGI::InProcess::World::files();
    my $closed = Kamado::CGI::InProcess::World::world_enter(fileno $in, fileno $files->{out}, fileno $files->{err}, $env, $fixed, $dir, $file, undef);
    ...
    ($closed, my $errors, my %changed) = Kamado::CGI::InProcess::World::world_leave($files->{cwd});
    Kamado::CGI::InProcess::World::reopen_std($closed) if $closed;

=cut
